# DecisionPivot: one image runs generation, evaluation and scoring the same way on any host.
#
#   docker build -t dp .
#   docker run --rm -v "$PWD:/work" dp generate
#   docker run --rm -v "$PWD:/work" dp evaluate --system uniform
#   docker run --rm -v "$PWD:/work" dp score
#
# Build arguments:
#   BASE_IMAGE  any image with python3 (>= 3.11) and pip/venv; default python:3.11-slim. CI passes a
#               local Debian bookworm image made with debootstrap (see .ci/docker-test).
# Optional build-context folders (empty by default, see README "Docker"):
#   docker/ca-certificates/*.crt  extra CA certificates for a TLS-intercepting proxy during pip install
#   docker/wheelhouse/*.whl       the package and all its dependencies as wheels; when present pip installs
#                                 only from there (--no-index), so `docker build --network none` works.
# Either way the dependencies are exactly the versions requirements.lock pins, checked against its hashes:
# docker/lock_subset.py picks the lock's entries the package's core dependencies need (no torch, transformers
# or DVC), pip installs them with --require-hashes, and the lock is kept as /opt/dp/requirements.lock, whose
# SHA-256 `docker run dp version` prints.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/dp \
    PATH=/opt/dp/bin:$PATH \
    MPLBACKEND=Agg \
    MPLCONFIGDIR=/tmp/matplotlib

SHELL ["/bin/sh", "-eu", "-c"]

COPY docker/ /tmp/dp-build/docker/
COPY pyproject.toml README.md requirements.lock /tmp/dp-build/src/
COPY src/ /tmp/dp-build/src/src/

# One layer: venv, optional proxy CAs (build only), the locked dependencies with their hashes (from the
# wheelhouse when given, else from the index), the package without dependencies, pip check, clean up.
# The package is installed from the build context (its version is the source's), hence no pin (DL3013).
# hadolint ignore=DL3013
RUN python3 -m venv "$VIRTUAL_ENV" \
 && { cat /etc/ssl/certs/ca-certificates.crt /tmp/dp-build/docker/ca-certificates/*.crt \
        > /tmp/dp-build/ca-bundle.pem 2>/dev/null || true; } \
 && if ls /tmp/dp-build/docker/wheelhouse/*.whl > /dev/null 2>&1; then \
        set -- --no-index --find-links /tmp/dp-build/docker/wheelhouse; target=decisionpivot; \
    else \
        export PIP_CERT=/tmp/dp-build/ca-bundle.pem; set --; target=/tmp/dp-build/src; \
    fi \
 && python3 /tmp/dp-build/docker/lock_subset.py subset /tmp/dp-build/src/requirements.lock "$target" "$@" \
        > /tmp/dp-build/requirements.txt \
 && pip install --require-hashes --no-deps "$@" -r /tmp/dp-build/requirements.txt \
 && pip install --no-deps "$@" "$target" \
 && pip check \
 && cp /tmp/dp-build/src/requirements.lock "$VIRTUAL_ENV/requirements.lock" \
 && rm -rf /tmp/dp-build \
 && (useradd --create-home --uid 1000 --user-group --shell /usr/sbin/nologin dp 2>/dev/null \
     || adduser --disabled-password --gecos "" --uid 1000 dp) \
 && mkdir -p /work \
 && chown 1000:1000 /work

# Non-root (uid/gid 1000). For a host folder owned by someone else: docker run --user "$(id -u):$(id -g)" ...
USER 1000:1000
WORKDIR /work
VOLUME ["/work"]
ENTRYPOINT ["dp"]
CMD ["--help"]
