# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``freeze_all_but`` (see ``gradexercises``): lesson 1, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="freeze_all_but",
    lesson="lesson1_requires_grad",
    signature="freeze_all_but(model, trainable) -> int",
    codes={
        "ok": N_("correct"),
        "replaced_parameters": N_("parameters replaced, detached or their values changed instead of flagged"),
        "inverted": N_("the named parameters were frozen and the others made trainable"),
        "never_unfreezes": N_("only freezes: a named parameter frozen before the call stays frozen"),
        "never_freezes": N_("only unfreezes: unnamed parameters keep their old flag"),
        "exact_name_match": N_("compares whole names (`name in trainable`) instead of prefixes"),
        "substring_match": N_('`prefix in name`, so `"0"` also matches `"10.weight"`'),
        "layer_name_match": N_('whole layer names (`name.startswith(prefix + ".")`, or the part of the name before the first dot), so `"1"` does not select `"10.weight"` as the plain prefix rule does'),
        "wrong_params": N_("flags that match none of the above"),
        "wrong_count": N_("flags right, but the return is not the trainable scalar count as an `int` (tensors counted, all or frozen parameters counted, `None`, a float or a tensor)"),
    },
    revisit={"": "8. Freezing parameters"},
    points={"test_freeze_all_but": 2},
)
# fmt: on
