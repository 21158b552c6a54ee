"""Student-facing helpers for the PyTorch autograd course.

Submodules are imported on demand (for example ``gradlessons.gradient_explorer``) so that
``import gradlessons`` stays cheap and pulls in neither torch nor ipywidgets.
"""
