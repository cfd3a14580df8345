/**
 * `getProjects` / `getProject`: projects the token can act on, read with `projects.list` (every
 * cursor followed, ⌈N/100⌉ requests). Users refer to projects by name; `getProject` turns a name
 * into exactly one record.
 */
import type * as pulumi from "@pulumi/pulumi";
import { DataSourceError, exactlyOne, invokeOutput, quoted, withProgramClient } from "./program-client";

export interface ProjectInfo {
  id: string;
  /** May be null: the API allows unnamed projects. */
  name: string | null;
  workspaceId: string;
}

export interface GetProjectsArgs {
  /** Only projects of this workspace. */
  workspaceId?: string;
}
export interface GetProjectsOutputArgs {
  workspaceId?: pulumi.Input<string>;
}
export interface GetProjectsResult {
  workspaceId?: string;
  projects: ProjectInfo[];
}

export async function getProjects(args: GetProjectsArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetProjectsResult> {
  return listProjects("getProjects", args);
}

async function listProjects(fn: string, args: GetProjectsArgs): Promise<GetProjectsResult> {
  const projects = await withProgramClient(fn, async (client) => {
    const all: ProjectInfo[] = [];
    const query = args.workspaceId === undefined ? {} : { workspaceId: args.workspaceId };
    for await (const p of client.listProjects(query)) all.push({ id: p.id, name: p.name, workspaceId: p.workspaceId });
    return all;
  });
  return { ...(args.workspaceId !== undefined && { workspaceId: args.workspaceId }), projects };
}

export function getProjectsOutput(args: GetProjectsOutputArgs = {}, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetProjectsResult> {
  return invokeOutput<GetProjectsArgs, GetProjectsResult>(args, opts, (a) => listProjects("getProjectsOutput", a));
}

export interface GetProjectArgs {
  /** Exactly one of `name` and `id`. */
  name?: string;
  id?: string;
  /** Narrows a name lookup to one workspace. */
  workspaceId?: string;
}
export interface GetProjectOutputArgs {
  name?: pulumi.Input<string>;
  id?: pulumi.Input<string>;
  workspaceId?: pulumi.Input<string>;
}

/** Exactly one project by name or id; zero or several matches is an error listing candidates. */
export async function getProject(args: GetProjectArgs, _opts?: pulumi.InvokeOptions): Promise<ProjectInfo> {
  return findProject("getProject", args, false);
}

export function getProjectOutput(args: GetProjectOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<ProjectInfo> {
  return invokeOutput<GetProjectArgs, ProjectInfo>(args, opts, (a, secret) => findProject("getProjectOutput", a, secret));
}

async function findProject(fn: string, args: GetProjectArgs, secret: boolean): Promise<ProjectInfo> {
  if ((args.name === undefined) === (args.id === undefined)) {
    throw new DataSourceError(`${fn}: pass exactly one of \`name\` and \`id\``);
  }
  const { projects } = await listProjects(fn, args.workspaceId === undefined ? {} : { workspaceId: args.workspaceId });
  const scope = args.workspaceId === undefined ? "" : ` in workspace ${args.workspaceId}`;
  const show = (p: ProjectInfo) => `${p.name === null ? "(unnamed)" : JSON.stringify(p.name)} (id ${p.id}, workspace ${p.workspaceId})`;
  const noun = ["project", "projects"] as const;
  if (args.id !== undefined) {
    const id = args.id.toLowerCase();
    const given = quoted(args.id, secret);
    return exactlyOne(fn, noun, [`has id ${given}${scope}`, `have id ${given}${scope}`], projects.filter((p) => p.id.toLowerCase() === id),
      projects, show, { none: "Check the id and that the token can see the project.", several: "The service listed one id twice." });
  }
  const given = quoted(args.name!, secret);
  return exactlyOne(fn, noun, [`is named ${given}${scope}`, `are named ${given}${scope}`], projects.filter((p) => p.name === args.name),
    projects, show, {
      none: "Check the name (it is matched exactly, case included).",
      several: args.workspaceId === undefined ? "Pass workspaceId or id to choose." : "Pass id to choose.",
    });
}
