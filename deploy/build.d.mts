/** Types for deploy/build.mjs (the build script; tests and benchmarks build with it too). */
import type { Metafile } from "esbuild";

export declare const BUILD_FOLDER: string;
export declare const MAIN: Readonly<Record<string, string>>;
export declare const ENTRIES: readonly string[];
export declare const EXTERNAL: readonly string[];
export declare function buildProduct(outDir?: string, main?: Readonly<Record<string, string>>): Promise<Metafile>;
export declare function buildEntries(dir: string): Promise<void>;
