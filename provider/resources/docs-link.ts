/**
 * Where a message sends the user for more: the page in the repository (from package.json's
 * `repository`), and the copy the npm package ships under `docs/`, so it opens offline too.
 */
import { repository } from "../../package.json";

const base = repository.url.replace(/^git\+/, "").replace(/\.git$/, "");

/** `docs/recovery.md (https://…/blob/main/docs/recovery.md; also in node_modules/pulumi-serviceapi/docs/)`. */
export function docsLink(page: string): string {
  return `docs/${page} (${base}/blob/main/docs/${page}; also in node_modules/pulumi-serviceapi/docs/)`;
}
