import { expect, test } from "bun:test";
import { canonicalJson } from "./middleware.ts";

test("canonicalJson: keys sorted by code unit at every depth, arrays in order, values as JSON writes them", () => {
  const body = JSON.parse('{"b":1,"a":[{"d":2,"c":null},"x",[],{}],"10":"é","2":true,"nested":{"z":{"y":[1.5,-0]}}}');
  expect(canonicalJson(body)).toBe('{"10":"é","2":true,"a":[{"c":null,"d":2},"x",[],{}],"b":1,"nested":{"z":{"y":[1.5,0]}}}');
  expect(canonicalJson(JSON.parse(' [ 1 , "a" ] '))).toBe('[1,"a"]');
  expect(canonicalJson("text")).toBe('"text"');
});

test("canonicalJson: a document nested 30,000 deep is written without overflowing the stack", () => {
  const deep = `{"a":${"[".repeat(30_000)}{"y":1,"x":2}${"]".repeat(30_000)}}`;
  expect(canonicalJson(JSON.parse(deep)) === deep.replace('{"y":1,"x":2}', '{"x":2,"y":1}')).toBe(true);
});
