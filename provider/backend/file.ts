/**
 * A `file://` backend's folder as a Bucket: keys are paths under the folder, as Pulumi's storage
 * layer (gocloud.dev `fileblob`) keeps them, with the `.attrs` file it writes beside each blob
 * (content type and MD5) left out, as it leaves them out of a listing. The folder is read as Pulumi
 * resolves the URL (`massageBlobPath`): `file:///abs/path`, `file://~` and `file://~/x` (the
 * user's home), a relative path against the working directory; query parameters (`?no_tmp_dir=true`)
 * say how Pulumi writes, not where, and are ignored.
 */
import { readdir, open, rm, stat, unlink } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import type { Blob, Bucket } from "./diy";

const ATTRS = ".attrs";

/** The folder a `file://` URL names. */
export function fileRoot(url: string, cwd: string): string {
  let path = url.slice("file://".length).split("?")[0]!;
  // Pulumi's own reading of `~` (Go's user.Current().HomeDir, which is the passwd entry, not $HOME).
  if (path.startsWith("~")) path = path === "~" ? userInfo().homedir : join(userInfo().homedir, path.slice(2));
  return resolve(cwd, path);
}

/** The folder's bucket; fails (ENOENT, ENOTDIR) when the folder is not there, as `pulumi login` does. */
export async function openFileBucket(root: string): Promise<Bucket> {
  if (!(await stat(root)).isDirectory()) throw Object.assign(new Error(`${root} is not a folder`), { code: "ENOTDIR" });
  return new FileBucket(root);
}

class FileBucket implements Bucket {
  constructor(private readonly root: string) {}

  async list(prefix: string, read: readonly string[]): Promise<{ keys: string[]; blobs: Blob[] }> {
    const [keys, blobs] = await Promise.all([this.#keysUnder(prefix), this.read(read)]);
    return { keys, blobs };
  }

  async read(keys: readonly string[]): Promise<Blob[]> {
    const blobs = await Promise.all(keys.map((key) => this.#blob(key)));
    return blobs.filter((blob) => blob !== undefined);
  }

  async readUnder(prefix: string): Promise<Blob[]> {
    const entries = await missingAsEmpty(readdir(this.#path(prefix), { withFileTypes: true }));
    const keys = entries.filter((e) => e.isFile() && !e.name.endsWith(ATTRS)).map((e) => `${prefix}${e.name}`);
    return this.read(keys);
  }

  /** Keys whose `.attrs` file exists and is empty: gocloud writes it in place, so a kill can cut it to 0 bytes. */
  async emptyAttributes(keys: readonly string[]): Promise<string[]> {
    const sizes = await Promise.all(
      keys.map((key) =>
        stat(`${this.#path(key)}${ATTRS}`).then(
          (info) => info.size,
          () => undefined,
        ),
      ),
    );
    return keys.filter((_, i) => sizes[i] === 0);
  }

  async removeAttributes(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => unlink(`${this.#path(key)}${ATTRS}`)));
  }

  pathOf(key: string): string {
    return this.#path(key);
  }

  async remove(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.#path(key), { force: true })));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async #keysUnder(prefix: string): Promise<string[]> {
    const entries = await missingAsEmpty(readdir(this.#path(prefix), { withFileTypes: true, recursive: true }));
    return entries
      .filter((e) => e.isFile() && !e.name.endsWith(ATTRS))
      .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join("/"));
  }

  /** The blob, or undefined when there is no such file (a blob's replacement is a rename: it is read whole, old or new). */
  async #blob(key: string): Promise<Blob | undefined> {
    const handle = await open(this.#path(key), "r").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (handle === undefined) return undefined;
    try {
      const [info, data] = await Promise.all([handle.stat(), handle.readFile()]);
      return { key, data, modified: info.mtimeMs };
    } finally {
      await handle.close();
    }
  }

  #path(key: string): string {
    return join(this.root, ...key.split("/"));
  }
}

async function missingAsEmpty<T>(listing: Promise<T[]>): Promise<T[]> {
  try {
    return await listing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
