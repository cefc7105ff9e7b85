/**
 * Writes ONNX models built in code, for the fill's kernels (kernels/warp-graph.ts): the protobuf
 * wire format of the few ONNX messages a graph of standard operators needs (onnx/onnx.proto3),
 * so no protobuf package is needed. onnxruntime takes the bytes as they are, on its CPU threads here
 * and on CUDA where that provider is installed.
 */

/** ONNX's TensorProto.DataType codes for the element types our graphs use. */
export const ElementType = { float: 1, uint8: 2, int64: 7, bool: 9 } as const;
export type ElementTypeName = keyof typeof ElementType;

/** A dimension: a size, or a name that binds the same size wherever it appears. */
export type Dimension = number | string;

export interface TensorInfo {
  name: string;
  type: ElementTypeName;
  shape: Dimension[];
}

/** A constant tensor stored in the model. */
export interface Initializer {
  name: string;
  type: "float" | "int64";
  dims: number[];
  values: number[];
}

/** Attribute values: an integer, a float, a list of integers. */
export type AttributeValue = { int: number } | { float: number } | { ints: number[] };

export interface GraphNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, AttributeValue>;
}

export interface GraphSpec {
  name: string;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  initializers: Initializer[];
  nodes: GraphNode[];
  /** The default domain's operator set the nodes follow. */
  opset: number;
}

/** ONNX IR version 8 (ONNX 1.10 on): every onnxruntime since 1.10 reads it. */
const IR_VERSION = 8;
const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_BYTES = 2;
/** AttributeProto.AttributeType codes. */
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

/** One protobuf message being written: fields appended in order, as bytes. */
class Message {
  private readonly parts: Uint8Array[] = [];

  varint(field: number, value: number | bigint): this {
    this.key(field, WIRE_VARINT);
    this.parts.push(varint(BigInt.asUintN(64, BigInt(value))));
    return this;
  }

  fixed32Float(field: number, value: number): this {
    this.key(field, WIRE_FIXED32);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.parts.push(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, WIRE_BYTES);
    this.parts.push(varint(BigInt(value.length)), value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array {
    const total = this.parts.reduce((sum, part) => sum + part.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private key(field: number, wire: number): void {
    this.parts.push(varint(BigInt((field << 3) | wire)));
  }
}

function varint(value: bigint): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return Uint8Array.from(bytes);
}

function valueInfo({ name, type, shape }: TensorInfo): Message {
  const dims = new Message();
  for (const dim of shape) {
    dims.message(1, typeof dim === "number" ? new Message().varint(1, dim) : new Message().string(2, dim));
  }
  const tensorType = new Message().varint(1, ElementType[type]).message(2, dims);
  return new Message().string(1, name).message(2, new Message().message(1, tensorType));
}

function tensor({ name, type, dims, values }: Initializer): Message {
  const message = new Message();
  for (const dim of dims) message.varint(1, dim);
  message.varint(2, ElementType[type]);
  message.string(8, name);
  const raw =
    type === "float"
      ? new Uint8Array(Float32Array.from(values).buffer)
      : new Uint8Array(BigInt64Array.from(values, (value) => BigInt(value)).buffer);
  return message.bytes(9, raw);
}

function attribute(name: string, value: AttributeValue): Message {
  const message = new Message().string(1, name);
  if ("int" in value) return message.varint(3, value.int).varint(20, ATTRIBUTE_INT);
  if ("float" in value) return message.fixed32Float(2, value.float).varint(20, ATTRIBUTE_FLOAT);
  for (const int of value.ints) message.varint(8, int);
  return message.varint(20, ATTRIBUTE_INTS);
}

function node({ op, inputs, outputs, attributes = {} }: GraphNode, index: number): Message {
  const message = new Message();
  for (const input of inputs) message.string(1, input);
  for (const output of outputs) message.string(2, output);
  message.string(3, `${op}_${index}`).string(4, op);
  for (const [name, value] of Object.entries(attributes)) message.message(5, attribute(name, value));
  return message;
}

/** The model's bytes (a ModelProto), ready for InferenceSession.create. */
export function writeModel(spec: GraphSpec): Uint8Array {
  const graph = new Message();
  for (const [index, each] of spec.nodes.entries()) graph.message(1, node(each, index));
  graph.string(2, spec.name);
  for (const each of spec.initializers) graph.message(5, tensor(each));
  for (const each of spec.inputs) graph.message(11, valueInfo(each));
  for (const each of spec.outputs) graph.message(12, valueInfo(each));
  return new Message()
    .varint(1, IR_VERSION)
    .string(2, "adclean")
    .message(7, graph)
    .message(8, new Message().string(1, "").varint(2, spec.opset))
    .finish();
}
