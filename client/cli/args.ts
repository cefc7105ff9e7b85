import type { ParseArgsConfig } from "node:util";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/**
 * Node's parseArgs refuses `--text "-50% TODAY"` as ambiguous (a value that starts with a dash, common
 * in ads). An option that takes a value takes the next argument, whatever it starts with: this
 * rewrites `--text X` and `-o X` to `--text=X` and `--output=X` before parsing. After `--` nothing
 * is touched.
 */
export function bindOptionValues(argv: string[], options: OptionsConfig): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== "string") continue;
    takesValue.set(`--${name}`, name);
    if (option.short) takesValue.set(`-${option.short}`, name);
  }
  const bound: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index] as string;
    if (token === "--") {
      bound.push(...argv.slice(index));
      break;
    }
    const name = takesValue.get(token);
    const value = argv[index + 1];
    if (name !== undefined && value !== undefined) {
      bound.push(`--${name}=${value}`);
      index += 1;
    } else bound.push(token);
  }
  return bound;
}
