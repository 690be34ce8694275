"""Pure (no Django) rules for what leaves the server: outbound requests (allowed hosts, no redirects, deadlines, size
caps) and secrets (named by WORKBENCH_SECRET_* variables, never shown)."""
