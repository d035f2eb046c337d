// asl-validator ships no types; this is the call the tests use.
declare module 'asl-validator' {
  const validate: (definition: unknown, options?: { checkPaths?: boolean; checkArn?: boolean }) => { isValid: boolean; errors: unknown[] };
  export default validate;
}
