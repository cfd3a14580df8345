/** The kinds a catalog deploys (`provider/catalog/kinds.ts`): each named as the dynamic face names its type and module. */
import { describe, expect, it } from "vitest";
import { KIND, countsText } from "../../provider/catalog/kinds";
import { DYNAMIC_PRODUCT_TYPE } from "../../provider/resources/product/recorded";

describe("kinds", () => {
  it("a product's type is the one the state's product records are found by; each module is a package export", () => {
    expect(KIND.product.type).toBe(DYNAMIC_PRODUCT_TYPE);
    expect([KIND.site.type, KIND.task.module]).toEqual(["pulumi-nodejs:dynamic/serviceapi:Site", "pulumi-serviceapi/dynamic/task"]);
    expect(countsText({ product: 1, site: 2 })).toBe("1 product, 2 sites");
  });
});
