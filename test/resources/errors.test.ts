/**
 * The provider's error model: advice adds a sentence without changing what the error is (its
 * class, `code`, `status`, `mayHaveSucceeded`, a partial failure's record), and is added once; a
 * refusal and a bug are told apart by class, and a bug says where to report it.
 */
import { describe, expect, it } from "vitest";
import { AuthenticationError, ConfigError, PermissionDeniedError } from "../../provider/client";
import { PartialFailure, ProviderError, UserError, adviseOnFailure, isBug, withAdvice } from "../../provider/resources/errors";

const unauthorized = () =>
  new AuthenticationError({
    operation: "products.update",
    method: "PATCH",
    status: 401,
    envelope: { code: "unauthorized", message: "token rejected", doc_url: "https://docs.example/401" },
    bodyText: "",
    requestId: "req-1",
    retryAfterMs: undefined,
    mayHaveSucceeded: false,
  });

describe("errors", () => {
  it("a product's read refused (a token that may only read): the advice says the read is an empty PATCH", async () => {
    const refused = (operation: "products.update" | "sites.update") =>
      new PermissionDeniedError({
        operation,
        method: "PATCH",
        status: 403,
        envelope: { code: "forbidden", message: "this token may only read", doc_url: "https://docs.example/403" },
        bodyText: "",
        requestId: "req-2",
        retryAfterMs: undefined,
        mayHaveSucceeded: false,
      });
    const advice = async (kind: "read" | "other", operation: "products.update" | "sites.update") =>
      (
        (await adviseOnFailure(kind, async () => {
          throw refused(operation);
        })().catch((e: unknown) => e)) as { advice: string }
      ).advice;
    expect(await advice("read", "products.update")).toMatch(
      /^The token may not do this \(a product is read with an empty PATCH, the API's only read of one, so the token must be allowed to update products\)/,
    );
    // An update refused, or another record's: the plain words.
    expect(await advice("other", "products.update")).toMatch(/^The token may not do this[.:]/);
    expect(await advice("read", "sites.update")).toMatch(/^The token may not do this[.:]/);
  });

  it("the configuration advice keeps the client's error whole, and is added once", async () => {
    const original = unauthorized();
    const failing = adviseOnFailure("read", async () => {
      throw original;
    });
    const advised = (await failing().catch((e: unknown) => e)) as AuthenticationError & { advice: string; cause: unknown };
    expect(advised).toBeInstanceOf(AuthenticationError);
    expect(advised).toMatchObject({ status: 401, code: "unauthorized", requestId: "req-1", mayHaveSucceeded: false });
    expect(advised.cause).toBe(original);
    expect(advised.message).toBe(`${original.message} ${advised.advice}`);
    expect(advised.advice).toMatch(/^The service refused the token\. If serviceapi:token changed since the last `pulumi up`/);
    const twice = (await adviseOnFailure("read", async () => {
      throw advised;
    })().catch((e: unknown) => e)) as Error;
    expect(twice).toBe(advised);
    const config = (await adviseOnFailure("read", async () => {
      throw new ConfigError("serviceapi: no base URL.");
    })().catch((e: unknown) => e)) as Error;
    expect(config).toBeInstanceOf(ConfigError);
    expect(config.message).toMatch(/^serviceapi: no base URL\. `pulumi refresh` and `pulumi destroy` use the settings recorded/);
  });

  it("advice on a partial failure leaves it one: the face still records the record", () => {
    const advised = withAdvice(new PartialFailure("0b3f", { title: "T" }, "was created, but"), "More.");
    expect(advised).toBeInstanceOf(PartialFailure);
    expect(advised).toMatchObject({ id: "0b3f", outputs: { title: "T" }, message: "was created, but More." });
  });

  it("a refusal is not a bug; a bug says it is one and where to report it", () => {
    expect(isBug(new UserError("adoptId names no product"))).toBe(false);
    expect(isBug(new TypeError("x is undefined"))).toBe(true);
    const bug = new ProviderError("Product: its inputs are not of the types its field table gives.");
    expect(isBug(bug)).toBe(true);
    expect(bug.message).toBe(
      "Product: its inputs are not of the types its field table gives. This is a bug in pulumi-serviceapi; please report it, " +
        "with this message, at https://github.com/pulumi-serviceapi/pulumi-serviceapi/issues.",
    );
  });
});
