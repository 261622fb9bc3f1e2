from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from accounts.throttle import login_rate_limited
from course import views as course_views

from . import views
from .api import urls as api_urls

urlpatterns = [
    path("", course_views.language_redirect, name="root"),
    path("healthz", views.health, name="health"),
    path("ping", views.ping, name="ping"),
    path("sw.js", course_views.service_worker, name="service_worker"),  # at the root: its scope is the site
    # Staff can revoke certificates: their log-in has the learners' limits (before admin's own route).
    path("admin/login/", login_rate_limited(admin.site.login)),
    path("admin/", admin.site.urls),
]

urlpatterns += i18n_patterns(
    path("accounts/", include("accounts.urls")),
    path("quizzes/", include("quizzes.urls")),
    path("", include("certificates.urls")),  # /certificates/... and the claim under /quizzes/
    path("labs/", include("labs.urls")),
    path("", include("course.urls")),
    prefix_default_language=True,
)

# After the pages: Django tries patterns in order, and every page request (a quiz answer, for one)
# would first be tried against each API route. No page path starts like these, so order is free.
urlpatterns += [
    path("", api_urls),  # the JSON API (config/api.py): /api/... and /.well-known/jwks.json
]
# Media (the narration) is served with static files by WhiteNoise, with byte ranges, ahead of the
# URLs: config/static_files.py.

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"
