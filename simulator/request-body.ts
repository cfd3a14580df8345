/**
 * Reading request bodies. At most `BODY_LIMIT` bytes are kept. A larger body is read to its end
 * and thrown away (up to `DRAIN_LIMIT`) before the 400 goes out: closing a connection with unread
 * bytes resets it, and a client that writes its whole body before reading then sees EPIPE or a
 * reset instead of the 400. Bytes that are not UTF-8 are kept as a `NotUtf8Body`, so the 400 that
 * names them comes after the token and version checks, like every other body problem.
 */
import type { Readable } from "node:stream";
import { HttpError } from "./errors";

export const BODY_LIMIT = 1024 * 1024;
/** Beyond this a body is not read further: the 400 is sent and the connection closed (the client may see a reset). */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/** A body whose bytes are not valid UTF-8; `text` is a lenient decoding, for the request log only. */
export class NotUtf8Body {
  constructor(readonly text: string) {}
}

export type RequestBody = string | NotUtf8Body;

export function tooLarge(): HttpError {
  return new HttpError("invalid_request", `body exceeds ${BODY_LIMIT} bytes (1 MiB)`);
}

/** Reads `payload` to its end (within the bounds above) and hands over the text, a `NotUtf8Body`, or the 400. */
export function readBody(payload: Readable, declaredLength: number, done: (err: Error | null, body?: RequestBody) => void): void {
  if (declaredLength > DRAIN_LIMIT) {
    done(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => {
    payload.removeListener("data", onData);
    payload.removeListener("end", onEnd);
    payload.removeListener("error", onError);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) {
      chunks.push(chunk);
      return;
    }
    chunks.length = 0;
    if (size > DRAIN_LIMIT) {
      stop();
      done(tooLarge());
    }
  };
  const onEnd = () => {
    stop();
    if (size > BODY_LIMIT) done(tooLarge());
    else done(null, decode(Buffer.concat(chunks)));
  };
  const onError = (err: Error) => {
    stop();
    done(err);
  };
  payload.on("data", onData);
  payload.on("end", onEnd);
  payload.on("error", onError);
  payload.resume();
}

function decode(bytes: Buffer): RequestBody {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new NotUtf8Body(bytes.toString("utf8"));
  }
}
