# The two commands (see README): `make run` starts the site, `make test` runs the whole suite.
# `make unit`: the tests that need no server (no Redis, Celery worker or browser) and train nothing.
.PHONY: run test unit bench lint

run:
	bin/run

test:
	bin/test

unit:
	bin/unit

bench:
	bin/bench

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports --no-cache --no-logo
