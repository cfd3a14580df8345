/**
 * The line the tool prints on stderr for each create the moment it completes —
 * `catalog-plans.all: created Product "pro" 7229f68d-…` (or `created Task …`) — and its reading back. A CI log keeps these
 * lines after the runner is gone, so `recover --created-log FILE` can take a killed run's creates in
 * by id even where the runner's create journal was lost with it. One module writes and reads the
 * format, so the two cannot drift apart.
 */

/** One create, as the line names it. */
export interface CreatedLine {
  stack: string;
  key: string;
  id: string;
  /** What was created (a product when left out). */
  resource?: "Product" | "Task";
}

export function createdLine({ stack, key, id, resource = "Product" }: CreatedLine): string {
  return `${stack}: created ${resource} ${JSON.stringify(key)} ${id}`;
}

const LINE = /^(\S+): created (Product|Task) ("(?:[^"\\]|\\.)*") ([0-9a-fA-F-]{36})\s*$/;

/** Every such line of a log (a CI job's output, with anything around the lines), in order. */
export function parseCreatedLines(text: string): CreatedLine[] {
  const out: CreatedLine[] = [];
  for (const raw of text.split("\n")) {
    // A CI log may prefix each line with a timestamp: the line is the part that matches.
    const at = raw.search(/\S+: created (Product|Task) "/);
    const match = at < 0 ? null : LINE.exec(raw.slice(at).trimEnd());
    if (match === null) continue;
    try {
      out.push({
        stack: match[1]!,
        key: JSON.parse(match[3]!) as string,
        id: match[4]!,
        ...(match[2] === "Task" && { resource: "Task" as const }),
      });
    } catch {
      // not a line of ours
    }
  }
  return out;
}
