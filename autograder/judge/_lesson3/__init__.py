"""Judging lesson 3's training loops (train_step, train_accumulated): what the job saw explained by
hypotheses about clearing (``hypotheses``), the effects checked against the judge's own correct run
(``effects``), both brought together in ``runs``; ``precision`` the precisions the judge computes its
references in (never the record's choice); ``schema`` is the shape of the record they read."""
