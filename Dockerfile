FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY judging ./judging
COPY evaluation ./evaluation
COPY measures ./measures
COPY templates ./templates
COPY manage.py ./
RUN pip install --no-cache-dir . \
 && WORKBENCH_BUILD_ONLY=1 DEBUG=false python manage.py collectstatic --noinput
RUN useradd --create-home workbench && mkdir -p /app/var /srv/search-logs && chown -R workbench /app/var /srv/search-logs
USER workbench
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000"]
