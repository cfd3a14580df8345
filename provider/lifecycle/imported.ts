/**
 * Records an import took into the stack during this provider process (one process per CLI command).
 *
 * Pulumi 3.248 forgets an `import:` id in the state when the import is followed by an update in the
 * same run; if that id differs from the resource's id (`<projectId>/<recordId>`), the next `up`
 * imports the record again as an "import replacement" and then deletes the "original" — the same
 * record. A delete of a record imported in the same run is therefore never sent.
 */
const imported = new Set<string>();

export function noteImported(type: string, id: string): void {
  imported.add(`${type}:${id}`);
}

export function importedThisRun(type: string, id: string): boolean {
  return imported.has(`${type}:${id}`);
}
