# The two commands (see README): `make run` starts the site, `make test` runs the whole suite.
.PHONY: run test bench lint

run:
	bin/run

test:
	bin/test

bench:
	bin/bench

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/lint-imports --no-cache --no-logo
