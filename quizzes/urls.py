from django.urls import path

from . import views

app_name = "quizzes"
urlpatterns = [
    path("", views.index, name="index"),
    path("review/<int:pk>/", views.review_answer, name="review_answer"),
    path("<slug:slug>/", views.quiz, name="quiz"),
    path("<slug:slug>/start/", views.start, name="start"),
    path("<slug:slug>/attempts/<str:key>/", views.attempt, name="attempt"),
    path("<slug:slug>/attempts/<str:key>/questions/<int:number>/", views.answer, name="answer"),
    path("<slug:slug>/attempts/<str:key>/finish/", views.finish, name="finish"),
    path("<slug:slug>/attempts/<str:key>/result/", views.result, name="result"),
]
