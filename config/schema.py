"""The OpenAPI schema view: `?format=json` or `?format=yaml` picks the format (the project turns DRF's format
override off, because `format` names export file formats elsewhere), else the Accept header does."""

from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from drf_spectacular.views import SpectacularAPIView

RENDERERS = {"json": OpenApiJsonRenderer, "yaml": OpenApiYamlRenderer}


class SchemaView(SpectacularAPIView):
    def perform_content_negotiation(self, request, force=False):
        renderer = RENDERERS.get(request.query_params.get("format", ""))
        if renderer is not None:
            return renderer(), renderer.media_type
        return super().perform_content_negotiation(request, force)
