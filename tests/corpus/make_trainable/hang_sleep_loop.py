# expect: passed=false code=timeout
# why: sleeps in an endless loop
import time


def make_trainable(values):
    while True:
        time.sleep(0.1)
