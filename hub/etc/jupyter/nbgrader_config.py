"""nbgrader's settings for every user of the hub.  The hub points every server at this folder
(``JUPYTER_CONFIG_PATH``); the course folder's own nbgrader_config.py adds the course's pipeline."""

from autograder.quiet import encrypt_kernels
from autograder.settings import SETTINGS, SettingError

c = get_config()  # noqa: F821 - provided by nbgrader and its JupyterLab extension
# The hub's settings from the environment (autograder/settings.py): read once, every value checked; a
# bad one stops the command rather than letting traitlets skip this file.
try:
    settings = SETTINGS.read(only=["course_id", "exchange", "exchange_kind", "ngshare_url"])
except SettingError as error:
    raise SystemExit(f"hub/etc/jupyter/nbgrader_config.py: {error}") from None

# The kernel a student's `nbgrader validate` (or the Validate button) starts, in their own folder where
# the course folder's nbgrader_config.py is not read: CurveZMQ-encrypted sockets, so no warning about TCP.
encrypt_kernels(c)

# The course: a grading server's own (each course's service), or a user's one course.  A hub of
# several courses gives users' servers an empty AUTOGRADER_COURSE_ID: nbgrader then asks the hub which
# courses the user is in (its groups nbgrader-<course> and formgrade-<course>), lists and fetches from
# each, and keeps each course's files in <course>/<assignment> (two courses may both release "lesson1").
COURSE_ID = settings.course_id
if COURSE_ID:
    c.CourseDirectory.course_id = COURSE_ID
else:
    c.Authenticator.plugin_class = "nbgrader.auth.JupyterHubAuthPlugin"
    c.Exchange.path_includes_course = True
# The folder where assignments, submissions and feedback travel between users.
c.Exchange.root = settings.exchange
# Collect (the formgrader's button, `nbgrader collect` in the grading server's terminal) takes a
# submission only from the account it names, at the server's time: autograder/grading/exchange.py.
# The course folder's nbgrader_config.py says the same; here it holds for any course folder.
c.ExchangeFactory.collect = "autograder.grading.exchange.OwnerCheckedCollect"

# AUTOGRADER_EXCHANGE_KIND=ngshare (the hub sets it for every server, see hub/jupyterhub_config.py):
# nbgrader's exchange extension point selects ngshare_exchange's classes, which send everything to
# the hub's ngshare service with this server's hub token; ngshare files a submission under the
# token's owner and times it by its own clock, so the owner check above has nothing left to do.
if settings.exchange_kind == "ngshare":
    c.ExchangeFactory.exchange = "ngshare_exchange.Exchange"
    c.ExchangeFactory.fetch_assignment = "ngshare_exchange.ExchangeFetchAssignment"
    c.ExchangeFactory.fetch_feedback = "ngshare_exchange.ExchangeFetchFeedback"
    c.ExchangeFactory.release_assignment = "ngshare_exchange.ExchangeReleaseAssignment"
    c.ExchangeFactory.release_feedback = "ngshare_exchange.ExchangeReleaseFeedback"
    c.ExchangeFactory.list = "ngshare_exchange.ExchangeList"
    c.ExchangeFactory.submit = "ngshare_exchange.ExchangeSubmit"
    c.ExchangeFactory.collect = "ngshare_exchange.ExchangeCollect"
    c.Exchange._ngshare_url = settings.ngshare_url or None  # ngshare_exchange's setting of its URL
