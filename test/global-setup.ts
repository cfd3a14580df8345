export default function setup(): void {
  console.log(`pulumi-serviceapi tests on Node ${process.version} (${process.execPath})`);
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) throw new Error(`tests need Node >= 22 (the pinned toolchain is Node 24); got ${process.version}`);
}
