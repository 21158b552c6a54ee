# expect: passed=false code=finite_difference
# why: Forward difference, calling f with plain Python floats.
def derivative(f, x):
    h = 1e-6
    return float((f(x + h) - f(x)) / h)
