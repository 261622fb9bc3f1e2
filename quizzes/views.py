from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "error.html", {"title": "Quizzes", "message": "Quizzes are being built."})


def quiz(request: HttpRequest, slug: str) -> HttpResponse:
    return index(request)
