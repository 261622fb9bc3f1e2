"""Versions of each learner's data, kept in Django's cache, for the parts of their pages cached per
learner (the dashboard's sections, accounts/dashboard.py).

A cached part's key holds the current versions of the kinds of data it shows ("quiz-results",
"reads", "certificates", ...). A row saved or deleted bumps its kind (`bump_when_changed`, which
each app connects for its models), and a service that updates rows in bulk calls `bump`: the next
page looks under a new key and renders the part afresh. Nothing is deleted, nothing stale is ever
found, whichever process serves the page; old entries expire by their timeout. A version is a
random token, made when missing (after a Redis flush, say), so a version is never used twice.
"""

import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Model
from django.db.models.signals import post_delete, post_save
from redis import RedisError

logger = logging.getLogger(__name__)

VERSION_TIMEOUT = 30 * 24 * 3600  # seconds; longer than any entry keyed by a version lives


def _key(user_id: int, kind: str) -> str:
    return f"learner:{user_id}:version:{kind}"


def _new() -> str:
    return secrets.token_hex(6)


def bump(user_id: int | None, *kinds: str) -> None:
    """New versions of the learner's `kinds` of data: now, and again once the transaction commits
    (another process that read the rows from before the change stored its part under the version
    of now). Without a learner (a visitor's quiz attempt) there is nothing to bump."""
    if user_id is None:
        return

    def renew() -> None:
        try:
            cache.set_many({_key(user_id, kind): _new() for kind in kinds}, VERSION_TIMEOUT)
        except RedisError as exc:  # what was cached under the old versions expires by its timeout
            logger.warning("the versions of learner %s's %s could not be renewed: %s", user_id, kinds, exc)

    renew()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(renew)


def current(user_id: int, kinds: Iterable[str]) -> dict[str, str]:
    """The current version of each kind, in one round trip to the cache (two when one is missing).
    Raises RedisError when the cache cannot be reached."""
    keys = {kind: _key(user_id, kind) for kind in kinds}
    found = cache.get_many(keys.values())
    versions = {}
    for kind, key in keys.items():
        # get_or_set: of two processes making a missing version at once, both use the one stored.
        versions[kind] = found[key] if key in found else cache.get_or_set(key, _new, VERSION_TIMEOUT)
    return versions


def cached(user_id: int, kinds: tuple[str, ...], name: str, compute: Callable[[], Any], timeout: int = 3600) -> Any:
    """`compute()`, what the learner's data of `kinds` gives (`name` says what), from the cache while
    those versions stand: one round trip for the versions and one for the value, instead of the
    queries. Computed anew, and not stored, when the cache cannot be reached."""
    try:
        versions = current(user_id, kinds)
        key = f"learner:{user_id}:{name}:" + ".".join(versions[kind] for kind in kinds)
        found = cache.get(key)
    except RedisError:
        return compute()
    if found is not None:
        return found[0]
    value = compute()
    try:
        cache.set(key, (value,), timeout)  # in a tuple: a value of None is cached too
    except RedisError:
        pass
    return value


def bump_when_changed(model: type[Model], kind: str) -> None:
    """Bumps `kind` for the learner of each row of `model` (its `user_id`) saved or deleted, whoever
    saves it: a service, the admin. QuerySet.update sends no signal: the services that update rows
    in bulk call `bump` themselves."""

    def changed(sender, instance, **kwargs) -> None:
        bump(instance.user_id, kind)

    uid = f"learner_versions:{model._meta.label}:{kind}"
    post_save.connect(changed, sender=model, weak=False, dispatch_uid=uid)
    post_delete.connect(changed, sender=model, weak=False, dispatch_uid=uid)
