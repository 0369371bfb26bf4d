// Part 1 of tests/unit inside Pyodide (tests/pyodide/unit_suite.mjs).
import { unitShard } from "./unit_suite.mjs";

unitShard(1);
