// express ships no types and @types/express is not installed; the floor server uses it untyped.
declare module 'express';
