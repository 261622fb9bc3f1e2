from django.urls import path

from . import views

app_name = "quizzes"
urlpatterns = [path("", views.index, name="index"), path("<slug:slug>/", views.quiz, name="quiz")]
