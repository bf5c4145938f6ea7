import { describe, expect, it } from "vitest";
import { formatTable, truncate } from "../src/terminal/table.js";

const ROWS = [
  ["ID", "STATUS", "RUN", "CREATED", "SUMMARY"],
  ["apr_1234567890", "pending", "run_1234567890", "2030-01-02T04:00:00.000Z", "a long summary ".repeat(10)],
];

describe("formatTable", () => {
  it("cuts the last column to the width, leaving optional columns in while it can", () => {
    const lines = formatTable(ROWS, { width: 100, optional: [2, 3] });
    expect(lines[0]).toMatch(/^ID +STATUS +RUN +CREATED +SUMMARY$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(/a long summary.*…$/);
  });

  it("leaves out optional columns, in the order given, once the cut last column would be too narrow", () => {
    const lines = formatTable(ROWS, { width: 70, optional: [2, 3] });
    expect(lines[0]).toMatch(/^ID +STATUS +CREATED +SUMMARY$/);
    expect(formatTable(ROWS, { width: 45, optional: [2, 3] })[0]).toMatch(/^ID +STATUS +SUMMARY$/);
    for (const width of [45, 70]) {
      for (const line of formatTable(ROWS, { width, optional: [2, 3] }))
        expect(line.length).toBeLessThanOrEqual(width);
    }
  });

  it("leaves a row wider rather than unreadable when even the required columns do not fit", () => {
    const [, row] = formatTable(ROWS, { width: 20, optional: [2, 3] });
    expect(row).toMatch(/^apr_1234567890 +pending +a long summ…$/);
  });

  it("cuts nothing without a width, and never splits a surrogate pair", () => {
    expect(formatTable(ROWS)[1]).toContain("a long summary ".repeat(10).trim());
    expect(truncate("😀".repeat(10), 4)).toBe("😀😀😀…");
  });
});
