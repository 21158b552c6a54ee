# expect: passed=false code=error
# why: the function is called freeze_except, not freeze_all_but
def freeze_except(model, trainable):
    return 0
