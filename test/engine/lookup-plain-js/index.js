// A lookup that finds nothing, used by one resource and inside an apply, nothing exported.
const { Product, getProjectOutput } = require("pulumi-serviceapi");

const p = getProjectOutput({ name: "No Such Project" });
p.id.apply((id) => console.log(`project ${id}`));
new Product("x", { projectId: p.id, title: "x" });
