"""What lesson 3's exercises (train_step, train_accumulated, manual_sgd_step) share.

* ``scenarios``: models, losses, optimizers and data, fresh and dirty starts;
* ``recorder``: hooks that write down what a training step really did (in the sandbox);
* ``hypotheses``: what each way of clearing gradients predicts step() sees (in the judge);
* ``loops``: running train_step / train_accumulated under the recorder and judging the record.
"""
