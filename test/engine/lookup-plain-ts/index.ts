// A lookup that finds nothing, feeding one resource, its result not exported: the plain shape.
import { Product, getProjectOutput } from "pulumi-serviceapi";

const p = getProjectOutput({ name: "No Such Project" });
new Product("x", { projectId: p.id, title: "x" });
