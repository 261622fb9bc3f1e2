def quizzes_sync_summary() -> str:
    return "Quizzes: none yet"
