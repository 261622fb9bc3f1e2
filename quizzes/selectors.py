def dashboard_context(user) -> dict:
    return {}
