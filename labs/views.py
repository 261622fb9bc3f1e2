from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "error.html", {"title": "Labs", "message": "Labs are being built."})


def preset(request: HttpRequest, slug: str) -> HttpResponse:
    return index(request)
