"""The quick start's catalog in Python, through the serviceapi plugin's generated Python SDK (sdk/python).

CI compiles it (test/sdk/python.test.ts); running it needs the `pulumi` Python package and
Pulumi's Python language host, which the official CLI ships (docs/sdks.md).
"""
import pulumi
import pulumi_serviceapi as serviceapi

config = pulumi.Config()
# Projects are referred to by name; the lookup fails clearly if none (or several) match.
project = serviceapi.get_project_output(name=config.get("projectName") or "Acme Web")

pro = serviceapi.Product(
    "pro-plan",
    project_id=project.id,
    title="Pro plan",
    description="Everything in Starter, plus priority support.",
    slug="pro",
    status="active",
    external_checkout_url="https://shop.example.com/checkout/pro",
)
legacy = serviceapi.Product(
    "legacy-plan",
    project_id=project.id,
    title="Legacy basic plan",
    slug="legacy-basic",
    status="archived",
)

# Sites cannot be created through the API: this renames the project's default site, and
# `pulumi destroy` gives it its original name back.
default_site = serviceapi.get_site_output(project_id=project.id, is_default=True)
home = serviceapi.Site("home", project_id=project.id, site_id=default_site.id, name="Acme — Home")

pulumi.export("productIds", {"pro": pro.id, "legacy": legacy.id})
pulumi.export("siteSubdomain", home.subdomain)
