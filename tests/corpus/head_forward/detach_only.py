# expect: passed=false code=detach_only
# why: Builds the backbone's graph, then cuts it with detach().
def head_forward(backbone, head, x):
    features = backbone(x).detach()
    return head(features)
