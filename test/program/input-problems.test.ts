/**
 * The program's own report of every resource with bad inputs (the engine stops at the first it
 * checks): one warning once two or more resources declared together have problems, none for one;
 * values the program does not hold (an `Output`) are left to the provider.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { noteInputProblems } from "../../provider/program/input-problems";
import { PRODUCT_FIELDS } from "../../provider/resources/product";
import { DEFAULT_IDS } from "../../simulator/seed";

const project = DEFAULT_IDS.acmeWeb;
const afterThisRun = () => new Promise((resolve) => setImmediate(resolve));

describe("input problems of several resources", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("two bad resources declared together: one warning naming both, by field, never the value", async () => {
    const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
    noteInputProblems(PRODUCT_FIELDS, "a", { projectId: project, title: "A", externalCheckoutUrl: "shop/a" });
    noteInputProblems(PRODUCT_FIELDS, "ok", { projectId: project, title: "OK" });
    noteInputProblems(PRODUCT_FIELDS, "b", { projectId: project, title: "", slug: "b" });
    await afterThisRun();
    expect(warn.mock.calls).toEqual([
      [
        "serviceapi: 2 resources of this program have input problems; `pulumi preview` fails at the first of them the engine checks, " +
          "so here are all of them (no value is shown):\n" +
          '  Product "a": externalCheckoutUrl must be an absolute URI (RFC 3986: a scheme such as https:, ASCII only, no spaces, % only in %XX escapes)\n' +
          '  Product "b": title must be 1 to 1024 characters long (got 0)',
      ],
    ]);
    expect(String(warn.mock.calls[0]![0])).not.toContain("shop/a");
  });

  it("one bad resource is the engine's to name; an Output's value is the provider's to check", async () => {
    const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
    noteInputProblems(PRODUCT_FIELDS, "a", { projectId: project, title: "A", externalCheckoutUrl: "shop/a" });
    noteInputProblems(PRODUCT_FIELDS, "later", { projectId: pulumi.output(project), title: pulumi.secret("x".repeat(2000)) });
    await afterThisRun();
    expect(warn).not.toHaveBeenCalled();
  });
});
