from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language, get_language_from_request
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_ratelimit.decorators import ratelimit

from . import services
from .forms import NewsletterForm
from .models import GuidePage, GuideRead
from .page_cache import cache_for_anonymous
from .search import search_guides


@require_GET
def language_redirect(request: HttpRequest) -> HttpResponse:
    """`/` sends the visitor to the language their browser asks for."""
    return redirect(f"/{get_language_from_request(request)}/")


def _published_pages(language: str):
    """Titles and summaries of the course in one language; the heavy text columns stay in the DB."""
    pages = GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")
    return pages.defer("body_markdown", "body_html", "plain_text", "toc")


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    pages = _published_pages(get_language())
    return render(request, "course/home.html", {"pages": pages, "newsletter_form": NewsletterForm()})


@require_GET
def guide_index(request: HttpRequest) -> HttpResponse:
    return render(request, "course/guide_index.html", {"pages": _published_pages(get_language())})


@require_GET
@cache_for_anonymous
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    pages = list(_published_pages(get_language()))
    index = next((i for i, p in enumerate(pages) if p.guide.slug == slug), None)
    if index is None:
        raise Http404
    page = GuidePage.objects.select_related("guide").get(pk=pages[index].pk)
    if request.user.is_authenticated:
        GuideRead.objects.update_or_create(user=request.user, guide=page.guide)
    related = [p for p in pages if p.guide.slug in page.guide.related]
    context = {
        "page": page,
        "previous_page": pages[index - 1] if index > 0 else None,
        "next_page": pages[index + 1] if index + 1 < len(pages) else None,
        "related_pages": related,
        "quiz_url": reverse("quizzes:quiz", args=[slug]),
        "lab_url": reverse("labs:preset", args=[page.guide.lab_preset]) if page.guide.lab_preset else "",
        "newsletter_form": NewsletterForm(),
    }
    return TemplateResponse(request, "course/guide_detail.html", context)


@require_GET
@ratelimit(key="ip", rate="60/m", block=True)
def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    context = {"query": query, "hits": search_guides(query, get_language()) if query else []}
    template = "course/search.html#results" if request.htmx else "course/search.html"
    return render(request, template, context)


@require_POST
@ratelimit(key="ip", rate="10/h", block=True)
def newsletter_subscribe(request: HttpRequest) -> HttpResponse:
    form = NewsletterForm(request.POST)
    if form.is_valid():
        services.newsletter_subscribe(email=form.cleaned_data["email"], language=get_language())
        form = None
    template = "course/_newsletter_form.html#form" if request.htmx else "course/newsletter.html"
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
