"""What lesson 3's exercises (train_step, train_accumulated, manual_sgd_step) share, in the job.

* ``scenarios``: models, losses, optimizers and data, fresh and dirty starts;
* ``recorder``: hooks that write down what a training step really did;
* ``loops``: running train_step / train_accumulated under the recorder, and what the record holds.

The judging (references, hypotheses, verdicts) is the grader's: ``autograder.judge._lesson3``.
"""
