"""show_error prints the first sentence of the error a line raises, and never lets it escape."""

import torch

from gradlessons.errors import error_line, show_error


def test_first_sentence_and_type():
    line = error_line(lambda: torch.tensor([1, 2], requires_grad=True))
    assert line == "RuntimeError: Only Tensors of floating point and complex dtype can require gradients"


def test_later_hints_left_out():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    line = error_line(loss.backward)
    assert line.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert line.endswith(".") and "retain_graph" not in line


def test_no_error_gives_none_says_so(capsys):
    assert error_line(lambda: 1 + 1) is None
    show_error(lambda: 1 + 1)
    assert capsys.readouterr().out == "no error\n"


def test_prints_one_line_no_stderr(capsys):
    show_error(lambda: {}["missing"])
    out, err = capsys.readouterr()
    assert out == "KeyError: 'missing'\n" and err == ""
