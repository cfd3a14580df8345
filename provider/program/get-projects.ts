/**
 * `getProjects` / `getProject`: projects the token can act on, read with `projects.list` (every
 * cursor followed, ⌈N/100⌉ requests). Users refer to projects by name; `getProject` turns a name
 * into exactly one record. Arguments and results are declared once, in `resources/lookups.ts`.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  LOOKUPS,
  findProject,
  type GetProjectArgs,
  type GetProjectsArgs,
  type GetProjectsResult,
  type ProjectInfo,
} from "../resources/lookups";
import { dataSource, type InputArgs } from "./program-client";

export type { GetProjectArgs, GetProjectsArgs, GetProjectsResult, ProjectInfo };
export type GetProjectsOutputArgs = InputArgs<GetProjectsArgs>;
export type GetProjectOutputArgs = InputArgs<GetProjectArgs>;

const projects = dataSource("getProjects", (client, _fn, args: GetProjectsArgs, secret) => LOOKUPS.getProjects.run(client, args, secret));
const project = dataSource("getProject", findProject);

export async function getProjects(args: GetProjectsArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetProjectsResult> {
  return projects.call(args);
}

export function getProjectsOutput(args: GetProjectsOutputArgs = {}, opts?: pulumi.InvokeOutputOptions): pulumi.Output<GetProjectsResult> {
  return projects.output(args, opts);
}

/** Exactly one project by name or id; zero or several matches is an error naming close names or how to choose. */
export async function getProject(args: GetProjectArgs, _opts?: pulumi.InvokeOptions): Promise<ProjectInfo> {
  return project.call(args);
}

export function getProjectOutput(args: GetProjectOutputArgs, opts?: pulumi.InvokeOutputOptions): pulumi.Output<ProjectInfo> {
  return project.output(args, opts);
}
