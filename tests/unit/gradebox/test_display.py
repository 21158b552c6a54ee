"""A diagnosis reads on any screen: the result in words beside the mark, one problem per line,
lines wrapped between words and never inside one."""

from autograder.verdict import Verdict, together
from gradebox.display import NOT_PASSED, PASSED, WIDTH, problems, shown_lines, wrapped

LONG = (
    "Gradients pile up across updates: every step() used the sum of all gradients computed so far, so "
    "the weights moved further and further from the line. Call optimizer.zero_grad() before loss.backward()."
)


def test_result_in_words_beside_the_mark():
    assert shown_lines("train_step", "ok", True, "Correct.")[0] == f"✅ train_step: {PASSED}"
    assert shown_lines("train_step", "never_clears", False, LONG)[0] == f"❌ train_step [never_clears]: {NOT_PASSED}"


def test_one_problem_per_line():
    first = Verdict("train_step", "never_clears", LONG)
    second = Verdict("train_step", "error", "Your function returns None (no return statement?).")
    message = together("train_step", [first, second]).message
    assert problems(message) == [LONG, "Also: your function returns None (no return statement?)."]
    lines = shown_lines("train_step", "never_clears", False, message)
    starts = [line for line in lines[1:] if not line.startswith("     ")]
    assert [line.split()[0] for line in starts] == ["Gradients", "Also:"]


def test_wrapped_between_words():
    lines = shown_lines("train_step", "never_clears", False, LONG)
    assert all(len(line) <= WIDTH for line in lines)
    assert " ".join(" ".join(line.split()) for line in lines[1:]) == LONG  # no word cut, none lost


def test_long_name_kept_whole():
    name = "torch.nn.utils.clip_grad_norm_" * 4
    assert any(name in line for line in wrapped(f"Remove {name} before step()."))


def test_fix_label_before_first_problem():
    lines = shown_lines("train_step", "never_clears", False, "Clear the gradients first.", fix_label="To fix:")
    assert lines[1].strip() == "To fix: Clear the gradients first."


def test_a_failed_code_is_shown_with_its_meaning_and_a_pass_without():
    meaning = "gradients pile up across updates; `clears_once` means: clears once, then never again"
    failed = shown_lines("train_step", "never_clears", False, "Clear the gradients first.", meaning=meaning)
    assert " ".join(" ".join(failed[2:]).split()) == (
        "never_clears means: gradients pile up across updates; clears_once means: clears once, then never again"
    )  # last, in plain text: no Markdown backticks
    assert shown_lines("train_step", "ok", True, "Correct.", meaning="correct") == [
        f"✅ train_step: {PASSED}",
        "   Correct.",
    ]
