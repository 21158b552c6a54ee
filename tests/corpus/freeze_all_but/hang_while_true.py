# expect: passed=false code=timeout
# why: loops forever
def freeze_all_but(model, trainable):
    while True:
        pass
