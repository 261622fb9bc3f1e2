import json
from collections.abc import Callable
from typing import Any

import nbformat
from django.conf import settings
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language, get_language_from_request
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from redis import RedisError

from config.htmx import vary_on_htmx, wants_fragment
from config.origin import same_site_posts_only
from config.ratelimit import rate_limit

from . import book, narration_status, notebooks, offline, outside_links, services, study_plan
from .forms import NewsletterForm
from .models import GuidePage
from .page_cache import content_hash, content_version, public_page
from .progress import progress_of
from .search import query_terms, search_guides, searched_as
from .versions import tested_with_text


@require_GET
def language_redirect(request: HttpRequest) -> HttpResponse:
    """`/` sends the visitor to the language their browser asks for."""
    return redirect(f"/{get_language_from_request(request)}/")


def _published_pages(language: str):
    """Titles and summaries of the course in one language; the heavy text columns stay in the DB."""
    pages = GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")
    return pages.defer("body_markdown", "body_html", "plain_text", "toc")


def _for_everyone(key: str, version: str | None, compute: Callable[[], Any]) -> Any:
    """What every visitor sees alike while the content hash `version` stands (the list of guides,
    their study times), from the cache framework: a signed-in learner's pages are rendered for
    them, and need it each time. Computed when the cache cannot be reached."""
    if version is None:
        return compute()
    try:
        return cache.get_or_set(f"{key}:{version}", compute, FRAGMENT_TIMEOUT)
    except RedisError:
        return compute()


def _course_pages(language: str, version: str | None) -> list[GuidePage]:
    return _for_everyone(f"course:pages:{language}", version, lambda: list(_published_pages(language)))


ARTICLE_UNUSED = ("body_markdown", "plain_text")  # the article shows body_html
PAGE_TIMEOUT = 3600  # seconds; a change to the guides retires their pages at once anyway


# The content of these pages is the same for every visitor: for one with a session, the templates
# cache it as fragments keyed by `content_version`, and the querysets (lazy) are read only on a miss.
FRAGMENT_TIMEOUT = PAGE_TIMEOUT


@require_GET
@public_page(timeout=PAGE_TIMEOUT)
def home(request: HttpRequest) -> HttpResponse:
    version = content_version()
    pages = _course_pages(get_language(), version)
    context = {
        "pages": pages,
        # The hero's next step (signed in, or quizzes taken in this browser); the page cached for
        # everyone else says "Start the course". Reads `pages` once for the cached part too.
        "progress": progress_of(request.user, request.session, pages),
        "newsletter_form": NewsletterForm(),
        "content_version": version,
        "fragment_timeout": FRAGMENT_TIMEOUT,
    }
    return TemplateResponse(request, "course/home.html", context)


@require_GET
@public_page(timeout=PAGE_TIMEOUT)
def guide_index(request: HttpRequest) -> HttpResponse:
    version = content_version()
    pages = _course_pages(get_language(), version)
    progress = progress_of(request.user, request.session, pages)  # none for the page cached for everyone
    context = {
        "pages": pages,
        "progress": progress if progress.started else None,
        "steps": {step.page.guide.slug: step for step in progress.steps},
        "content_version": version,
        "fragment_timeout": FRAGMENT_TIMEOUT,
    }
    return TemplateResponse(request, "course/guide_index.html", context)


@require_GET
@public_page(timeout=PAGE_TIMEOUT)
def course_overview(request: HttpRequest) -> HttpResponse:
    """Who the course is for: prerequisites, the guides in order with objectives and time, the exam."""
    language, version = get_language(), content_version()
    times = _for_everyone(f"course:study-times:{language}", version, lambda: study_plan.study_times(language))
    plan = study_plan.course_plan(_course_pages(language, version), times)
    # A visitor with a session (signed in, or quizzes taken in this browser) sees where they stand;
    # the page cached for everyone else shows none (progress_of finds nothing for them).
    progress = progress_of(request.user, request.session, [item.page for item in plan])
    context = {
        "plan": plan,
        "offline": SimpleLazyObject(lambda: offline.offline_bundle([item.page for item in plan], language)),
        "progress": progress if progress.started else None,
        "steps": {step.page.guide.slug: step for step in progress.steps},
        "total_hours": study_plan.total_hours(plan),
        "prerequisites": [item for item in (plan[0].page.prerequisites if plan else []) if "url" in item],
        "assumptions": study_plan.assumptions(),
        "exam": study_plan.exam_rules(),
        "tested_with": tested_with_text(),
        "book": book.current_book(language),
    }
    return TemplateResponse(request, "course/overview.html", context)


@require_GET
@public_page(timeout=PAGE_TIMEOUT)
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    language, version = get_language(), content_version()
    # What the page shows outside its article, from the course's list; the article's fields (the
    # body, its contents, the narration) are read only when its fragment is not cached (see guide_detail.html).
    page = next((page for page in _course_pages(language, version) if page.guide.slug == slug), None)
    if page is None:
        raise Http404
    article = SimpleLazyObject(lambda: GuidePage.objects.select_related("guide").defer(*ARTICLE_UNUSED).get(pk=page.pk))
    if request.user.is_authenticated:
        services.guide_read(user=request.user, guide=page.guide)
    context = {
        "page": page,
        "article_page": article,  # read on a miss only
        "neighbours": SimpleLazyObject(lambda: _neighbours(page, language)),  # read on a miss only
        "quiz_url": reverse("quizzes:quiz", args=[slug]),
        "lab_url": reverse("labs:preset", args=[page.guide.lab_preset]) if page.guide.lab_preset else "",
        "colab_url": outside_links.colab_url(slug, language),
        "discussion_url": outside_links.discussion_url(slug, language),
        "newsletter_form": NewsletterForm(),
        "tested_with": tested_with_text(),
        "content_version": version,
        "fragment_timeout": FRAGMENT_TIMEOUT,
        "narration_recording": narration_status.recording,  # called on a miss only
        "offline": SimpleLazyObject(lambda: offline.offline_bundle(_course_pages(language, version), language)),
    }
    return TemplateResponse(request, "course/guide_detail.html", context)


def _neighbours(page: GuidePage, language: str) -> dict:
    """The guides before and after `page` in the course, and those it names as related."""
    pages = list(_published_pages(language))
    index = next(i for i, p in enumerate(pages) if p.pk == page.pk)
    return {
        "previous": pages[index - 1] if index > 0 else None,
        "next": pages[index + 1] if index + 1 < len(pages) else None,
        "related": [p for p in pages if p.guide.slug in page.guide.related],
    }


@require_GET
def guide_notebook(request: HttpRequest, slug: str) -> HttpResponse:
    """The guide's runnable code and text as a Jupyter notebook, downloaded as `<slug>.<lang>.ipynb`."""
    page = GuidePage.objects.filter(language=get_language(), guide__slug=slug, guide__is_published=True)
    page = page.select_related("guide").first()
    if page is None:
        raise Http404
    response = HttpResponse(nbformat.writes(notebooks.guide_notebook(page)), content_type="application/x-ipynb+json")
    response["Content-Disposition"] = f'attachment; filename="{notebooks.notebook_filename(page)}"'
    return response


@require_GET
@vary_on_htmx
@rate_limit("guide_search", key="user_or_ip")
def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    terms = query_terms(query)
    context = {"query": query, "hits": search_guides(query, get_language()), "searched_as": searched_as(terms)}
    template = "course/search.html#results" if wants_fragment(request) else "course/search.html"
    return render(request, template, context)


# No CSRF token: the form sits on pages cached for every visitor, so it cannot carry one. Instead a
# post must say it comes from the site's own pages (Origin, else Referer: config/origin.py). Even a
# post that got through could do no more than the form does: subscription is double opt-in (nothing
# is sent to an address until its owner follows the emailed link, and an address that unsubscribed
# is not resubscribed without it), the view reads no session or account, and it is rate limited.
@csrf_exempt
@same_site_posts_only
@require_POST
@vary_on_htmx
@rate_limit("newsletter_subscribe")
def newsletter_subscribe(request: HttpRequest) -> HttpResponse:
    form = NewsletterForm(request.POST)
    if form.is_valid():
        services.newsletter_subscribe(email=form.cleaned_data["email"], language=get_language())
        form = None
    template = "course/_newsletter_form.html#form" if wants_fragment(request) else "course/newsletter.html"
    return render(request, template, {"newsletter_form": form}, status=200 if form is None else 400)


@require_GET
def newsletter_confirm(request: HttpRequest, token: str) -> HttpResponse:
    subscriber = services.newsletter_confirm(token=token)
    if subscriber is None:
        message = _("This confirmation link is invalid or has expired. Please subscribe again.")
        return render(request, "error.html", {"title": _("Link expired"), "message": message}, status=400)
    return render(request, "course/newsletter_done.html", {"state": "confirmed"})


@csrf_exempt  # RFC 8058 one-click unsubscribe posts without a session; the signed token is the proof
@require_http_methods(["GET", "POST"])
def newsletter_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "GET":
        return render(request, "course/newsletter_done.html", {"state": "confirm_unsubscribe", "token": token})
    subscriber = services.newsletter_unsubscribe(token=token)
    if subscriber is None:
        message = _("This unsubscribe link is not valid. Please use the link from your latest email.")
        return render(request, "error.html", {"title": _("Invalid link"), "message": message}, status=400)
    return render(request, "course/newsletter_done.html", {"state": "unsubscribed"})


@require_GET
def support(request: HttpRequest) -> HttpResponse:
    return render(request, "course/support.html", {"donate_url": settings.DONATE_URL})


@require_GET
@never_cache
def csrf_token(request: HttpRequest) -> JsonResponse:
    """The visitor's CSRF token (and its cookie), fetched by a form on a page cached for every
    visitor when it is sent (static/js/site.js, data-csrf-from): such a page cannot carry one."""
    return JsonResponse({"token": get_token(request)})


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker (offline reading, course/offline.py), at the site's root so that its scope
    is every page. Its text carries the content hash: a content change is a new worker."""
    config = offline.worker_config(content_version() or content_hash())
    response = render(request, "course/service_worker.js", {"config": json.dumps(config)})
    response["Content-Type"] = "text/javascript; charset=utf-8"
    response["Cache-Control"] = "no-cache"  # browsers ask for it again at each check for an update
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def web_manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest in the page's language: the course installs as an app that opens on its
    home page in that language."""
    manifest = {
        "name": _("Gradient Accumulation Course"),
        "short_name": _("Gradient Accumulation"),
        "description": _(
            "Learn gradient accumulation properly: guides, quizzes with a verifiable certificate, and labs that "
            "run real training."
        ),
        "lang": get_language(),
        "dir": "ltr",
        "id": "/",
        "start_url": reverse("course:home"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#1f4e8c",
        "icons": [
            {"src": static("img/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("img/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": static("img/favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = JsonResponse(manifest, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


@require_GET
def offline_page(request: HttpRequest) -> HttpResponse:
    """What the service worker shows, offline, for a page that needs the server (a quiz, a lab, the
    dashboard) or one not saved on this device."""
    return render(request, "course/offline.html")
