/**
 * Test control: scripted failures, so clients can be tried against the failures a real service
 * (or a proxy in front of it: 502, 504) produces, and users can reproduce them.
 */
import { z } from "zod";
import { OPERATIONS, type OperationName } from "../provider/contract/schemas";

const operationNames = Object.keys(OPERATIONS) as [OperationName, ...OperationName[]];

export const FaultSpec = z
  .strictObject({
    /** Operation to fail, e.g. `products.create`; omitted or `*` means any API operation. */
    operation: z.union([z.enum(operationNames), z.literal("*")]).default("*"),
    /**
     * `error`: answer with `status`; `delay`: wait `delayMs`, then process and answer normally (even if
     * the client has left, as a real server does); `hang`: hold the request unprocessed until the client
     * leaves (or the connection times out), then drop it — a request stuck in a queue in front of the
     * service; `reset`: drop the connection (TCP RST).
     */
    kind: z.enum(["error", "delay", "hang", "reset"]),
    status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
    /**
     * `Retry-After` header value sent with an `error` fault: a number of seconds (`2`), or any header
     * text (`"2"`, an HTTP date, or something malformed to try a client). A 429 without one gets "1",
     * as the spec promises; `null` sends no header at all, to try a client against a server that breaks it.
     */
    retryAfter: z
      .union([z.number(), z.string()], { error: "must be a whole number of seconds, or a string" })
      .superRefine((value, ctx) => {
        if (typeof value === "number" && !(Number.isInteger(value) && value >= 0 && value <= 86_400)) {
          ctx.addIssue({ code: "custom", message: "must be a whole number of seconds, or a string" });
        }
        if (typeof value === "string" && !/^[\x20-\x7e]+$/.test(value))
          ctx.addIssue({ code: "custom", message: "must be printable ASCII (it is sent as a header)" });
      })
      .transform(String)
      .nullable()
      .optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
    /** How many matching requests this fault applies to. */
    times: z.number().int().min(1).max(1_000_000).default(1),
    /** `before`: the request is not processed; `after`: it is processed, then the response is replaced (lost). */
    when: z.enum(["before", "after"]).default("before"),
  })
  .refine((f) => f.kind !== "error" || f.status !== undefined, { message: "is required for an error fault", path: ["status"] })
  .refine((f) => f.kind !== "delay" || f.delayMs !== undefined, { message: "is required for a delay fault", path: ["delayMs"] });

export type FaultSpec = z.input<typeof FaultSpec>;
export type Fault = z.infer<typeof FaultSpec> & { id: number; remaining: number };

export class FaultQueue {
  #faults: Fault[] = [];
  #nextId = 1;

  add(spec: FaultSpec): Fault {
    const parsed = FaultSpec.parse(spec);
    // The spec says a 429 names its wait in Retry-After; a scripted one does too.
    if (parsed.kind === "error" && parsed.status === 429 && parsed.retryAfter === undefined) parsed.retryAfter = "1";
    const fault: Fault = { ...parsed, id: this.#nextId++, remaining: parsed.times };
    this.#faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }

  /** Takes one use of the first fault that matches, if any. */
  take(operation: OperationName, when: "before" | "after"): Fault | undefined {
    const fault = this.#faults.find((f) => (f.operation === "*" || f.operation === operation) && whenOf(f) === when);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    return fault;
  }
}

/** A delay or a hang is applied before processing whatever `when` says. */
function whenOf(fault: Fault): "before" | "after" {
  return fault.kind === "delay" || fault.kind === "hang" ? "before" : fault.when;
}
