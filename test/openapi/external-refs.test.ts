import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocument } from '../../adapters/openapi/load-document.js';

// Which specs reference other files (bundled through swagger-parser, their files watched and
// hashed for the conversion cache), told apart from self-contained ones by a scan of the text for
// `$ref`s whose value does not start with `#`, in JSON and YAML spellings.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-external-refs-'));
  writeFileSync(join(dir, 'item.json'), JSON.stringify({ type: 'object', description: 'ITEM FILE' }));
  writeFileSync(join(dir, 'item.yaml'), 'type: object\ndescription: ITEM YAML\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const json = (schema: string) => `{"openapi": "3.0.3", "info": {"title": "refs", "version": "1"},
  "paths": {"/items": {"get": {"description": "mentions $ref: in prose, and \\"$ref\\" alone",
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": ${schema}}}}}}}},
  "components": {"schemas": {"Local": {"type": "string"}}}}`;

const yaml = (schema: string) => `openapi: 3.0.3
info: { title: refs, version: "1" }
paths:
  /items:
    get:
      description: 'mentions $ref: in prose, and "$ref" alone'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: ${schema}
components:
  schemas:
    Local: { type: string }
`;

describe('external $ref detection', () => {
  it.each([
    ['JSON, internal only', 'spec.json', json('{"$ref": "#/components/schemas/Local"}'), []],
    ['JSON, a file, spaced', 'spec.json', json('{"$ref" :\n  "./item.json"}'), ['item.json']],
    ['YAML, internal only, quoted', 'spec.yaml', yaml("{ $ref: '#/components/schemas/Local' }"), []],
    ['YAML, a file, bare', 'spec.yaml', yaml('{ $ref: item.yaml }'), ['item.yaml']],
    ['YAML, a file, quoted key', 'spec.yaml', yaml('{ "$ref": "./item.json" }'), ['item.json']],
  ])('%s', async (_, name, text, referenced) => {
    writeFileSync(join(dir, name), text);
    const loaded = await loadDocument(name, dir);
    expect(loaded.files).toEqual([join(dir, name), ...referenced.map((file) => join(dir, file))]);
  });
});
