/**
 * `getProjects` / `getProject`: projects the token can act on, read with `projects.list` (every
 * cursor followed, ⌈N/100⌉ requests). Users refer to projects by name; `getProject` turns a name
 * into exactly one record. The lookups themselves are in `lookups.ts`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { findProject, listProjects, type GetProjectArgs, type ProjectInfo } from "./lookups";
import { invokeOutput, withProgramClient } from "./program-client";

export type { GetProjectArgs, ProjectInfo };

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
  return projectsResult("getProjects", args);
}

export function getProjectsOutput(args: GetProjectsOutputArgs = {}, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetProjectsResult> {
  return invokeOutput<GetProjectsArgs, GetProjectsResult>(args, opts, (a) => projectsResult("getProjectsOutput", a));
}

async function projectsResult(fn: string, args: GetProjectsArgs): Promise<GetProjectsResult> {
  const projects = await withProgramClient(fn, (client) => listProjects(client, args.workspaceId));
  return { ...(args.workspaceId !== undefined && { workspaceId: args.workspaceId }), projects };
}

export interface GetProjectOutputArgs {
  name?: pulumi.Input<string>;
  id?: pulumi.Input<string>;
  workspaceId?: pulumi.Input<string>;
}

/** Exactly one project by name or id; zero or several matches is an error listing candidates. */
export async function getProject(args: GetProjectArgs, _opts?: pulumi.InvokeOptions): Promise<ProjectInfo> {
  return withProgramClient("getProject", (client) => findProject(client, "getProject", args, false));
}

export function getProjectOutput(args: GetProjectOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<ProjectInfo> {
  return invokeOutput<GetProjectArgs, ProjectInfo>(args, opts,
    (a, secret) => withProgramClient("getProjectOutput", (client) => findProject(client, "getProjectOutput", a, secret)));
}
