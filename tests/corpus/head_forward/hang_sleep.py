# expect: passed=false code=timeout
# why: Sleeps far beyond the time limit.
import time


def head_forward(backbone, head, x):
    time.sleep(3600)
