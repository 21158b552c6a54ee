# expect: passed=true code=ok
# source: openai/spinningup/spinup/algos/pytorch/vpg/vpg.py, update() (commit 09213516ff7b8f6cb3235ad43b97815d3a6811db), with mpi_avg_grads from spinup/utils/mpi_pytorch.py
# adapted: the policy half of update(); compute_loss_pi(data) -> loss_fn(model(x), y) (no pi_info); ac.pi/pi_optimizer -> model/optimizer; one process, so num_procs() is 1 and mpi_avg_grads returns at once (the MPI averaging is kept but not reached); the value-function loop and logger dropped; returns loss_pi.item().
# why: a first forward only for logging (pi_l_old, no backward), then zero_grad(), a fresh forward, backward(), the (single-process no-op) gradient averaging, step(): a correct update.
import torch


def num_procs():
    return 1


def mpi_avg_grads(module):
    """ Average contents of gradient buffers across MPI processes. """
    if num_procs()==1:
        return
    for p in module.parameters():
        p_grad_numpy = p.grad.numpy()   # numpy view of tensor data
        avg_p_grad = mpi_avg(p.grad)  # noqa: F821 (never reached in one process)
        p_grad_numpy[:] = avg_p_grad[:]


def train_step(model, optimizer, loss_fn, x, y):
    pi_optimizer = optimizer

    def compute_loss_pi(data):
        obs, target = data
        return loss_fn(model(obs), target)

    data = (x, y)
    # Get loss and info values before update
    pi_l_old = compute_loss_pi(data)
    pi_l_old = pi_l_old.item()

    # Train policy with a single step of gradient descent
    pi_optimizer.zero_grad()
    loss_pi = compute_loss_pi(data)
    loss_pi.backward()
    mpi_avg_grads(model)    # average grads across MPI processes
    pi_optimizer.step()
    return loss_pi.item()
