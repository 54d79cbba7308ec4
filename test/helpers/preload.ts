/** Loaded before every test file (bunfig.toml): hooks here span the whole test run. */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./env.ts";

afterAll(removeTempDirs);
