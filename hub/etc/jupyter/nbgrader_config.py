"""nbgrader's settings for every user of the hub.  The hub points every server at this folder
(``JUPYTER_CONFIG_PATH``); the course folder's own nbgrader_config.py adds the course's pipeline."""

import os

c = get_config()  # noqa: F821 - provided by nbgrader and its JupyterLab extension

# The course, and the folder where assignments, submissions and feedback travel between users.
c.CourseDirectory.course_id = "autograd-course"
c.Exchange.root = os.environ.get("AUTOGRAD_EXCHANGE", "/srv/nbgrader/exchange")
# Collect (the formgrader's button, `nbgrader collect` in the grading server's terminal) takes a
# submission only from the account it names, at the server's time: autograder/grading/exchange.py.
# The course folder's nbgrader_config.py says the same; here it holds for any course folder.
c.ExchangeFactory.collect = "autograder.grading.exchange.OwnerCheckedCollect"
