import type { AttributeValue, GraphNode, GraphSpec, Initializer, TensorInfo } from "./onnx-writer";

/**
 * Builds a graph of standard ONNX operators as code reads: each call adds a node and returns the
 * name of its output, so a kernel is written as the arithmetic it does.
 */
export class GraphBuilder {
  private readonly nodes: GraphNode[] = [];
  private readonly initializers: Initializer[] = [];
  private count = 0;

  /** Adds `op` on `inputs` (tensor names) and returns its one output's name. */
  op(op: string, inputs: string[], attributes?: Record<string, AttributeValue>): string {
    const output = `${op.toLowerCase()}_${this.count++}`;
    this.nodes.push({ op, inputs, outputs: [output], ...(attributes ? { attributes } : {}) });
    return output;
  }

  /** A constant tensor; a single number is a scalar. */
  constant(values: number | number[], type: Initializer["type"] = "float", dims?: number[]): string {
    const name = `constant_${this.count++}`;
    const list = typeof values === "number" ? [values] : values;
    const shape = dims ?? (typeof values === "number" ? [] : [list.length]);
    this.initializers.push({ name, type, dims: shape, values: list });
    return name;
  }

  /** Renames a value as a graph output (an Identity node). */
  output(value: string, name: string): void {
    this.nodes.push({ op: "Identity", inputs: [value], outputs: [name] });
  }

  spec(name: string, inputs: TensorInfo[], outputs: TensorInfo[], opset: number): GraphSpec {
    return { name, inputs, outputs, initializers: this.initializers, nodes: this.nodes, opset };
  }

  // The operators the kernels use most, named as the arithmetic reads.
  add = (a: string, b: string) => this.op("Add", [a, b]);
  sub = (a: string, b: string) => this.op("Sub", [a, b]);
  mul = (a: string, b: string) => this.op("Mul", [a, b]);
  div = (a: string, b: string) => this.op("Div", [a, b]);
  /** Inserts size-1 axes at `axes` (opset 13: the axes are an input). */
  unsqueeze = (value: string, axes: number[]) => this.op("Unsqueeze", [value, this.constant(axes, "int64")]);
  /** Column `index` of a 2-D tensor, as a 1-D one. */
  column = (value: string, index: number) =>
    this.op("Gather", [value, this.constant(index, "int64")], { axis: { int: 1 } });
}
