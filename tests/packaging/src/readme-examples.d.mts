/** One TypeScript example of a README. */
export interface ReadmeExample {
  name: string;
  line: number;
  code: string;
  run: boolean;
  reason: string;
}
/** The READMEs whose examples are checked. */
export function readmePaths(root: string): Array<{ path: string; pkg: string }>;
/** The examples of one README. */
export function extractExamples(readme: string, pkg: string): ReadmeExample[];
