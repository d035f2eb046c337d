/**
 * Per-caller fairness at the edge (lib/edge.ts): the settings that choose it, and what stands in front of the API in
 * each mode, with and without a custom domain. The modes are synthesized from the real construct in a small stack (a
 * bare HTTP API; test/infra/stack.test.ts checks the whole stack of each stage as it deploys by default).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Template } from 'aws-cdk-lib/assertions';
import { FrontDoor } from '../../lib/edge.ts';
import { settingsOf } from '../../lib/settings.ts';
import { type DomainConfig, STAGES } from '../../lib/stages.ts';

const settings = (context: Record<string, unknown>) => settingsOf(new App({ context }).node);
const CERT = (region: string) => `arn:aws:acm:${region}:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789`;
const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/video-service-test/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

describe('the edge setting', () => {
  it('is on by default in prod and off in dev, and context edge=true|false turns it on or off for one synth', () => {
    assert.equal(settings({ stage: 'prod' }).edge.enabled, true);
    assert.equal(settings({}).edge.enabled, false);
    assert.equal(settings({ edge: 'true' }).edge.enabled, true);
    assert.equal(settings({ stage: 'prod', edge: 'false' }).edge.enabled, false);
    assert.deepEqual(settings({ stage: 'prod' }).edge, STAGES.prod.edge);
    assert.throws(() => settings({ edge: 'yes' }), /Context edge must be true or false/);
  });

  it('refuses per-address limits that would refuse a lone key the service itself would serve, or that WAF does not take', () => {
    const edge = STAGES.prod.edge;
    const saved = { ...edge };
    try {
      Object.assign(edge, { requestsPerMinute: 600 });
      assert.throws(() => settings({ stage: 'prod' }), /requestsPerMinute must be at least limitGetsPerMinute \+ limitPostsPerMinute \(630\)/);
      Object.assign(edge, saved, { creationsPerMinute: 20 });
      assert.throws(() => settings({ stage: 'prod' }), /creationsPerMinute must be at least limitPostsPerMinute \(30\)/);
      Object.assign(edge, saved, { creationsPerMinute: 2000 });
      assert.throws(() => settings({ stage: 'prod' }), /creationsPerMinute must not exceed/);
      Object.assign(edge, saved, { requestsPerMinute: 2.5e9 });
      assert.throws(() => settings({ stage: 'prod' }), /AWS WAF's range/);
      Object.assign(edge, saved);
      // A key's own limits raised past the edge's are refused the same way.
      assert.throws(() => settings({ stage: 'prod', limitGetsPerMinute: 5000 }), /requestsPerMinute must be at least/);
    } finally {
      Object.assign(edge, saved);
    }
  });

  it("takes a custom domain whose certificate is in the region that serves it: us-east-1 for CloudFront, the stage's for API Gateway", () => {
    const name = 'api.example.com';
    assert.deepEqual(settings({ stage: 'prod', domainName: name, certificateArn: CERT('us-east-1') }).domain, { name, certificateArn: CERT('us-east-1') });
    assert.deepEqual(settings({ domainName: name, certificateArn: CERT('eu-central-1') }).domain, { name, certificateArn: CERT('eu-central-1') });
    assert.throws(
      () => settings({ stage: 'prod', domainName: name, certificateArn: CERT('eu-central-1') }),
      /certificateArn must be a certificate in us-east-1 \(CloudFront, the edge on\), got one in eu-central-1/,
    );
    assert.throws(() => settings({ domainName: name, certificateArn: CERT('us-east-1') }), /in eu-central-1 \(API Gateway, the edge off\)/);
    assert.throws(() => settings({ domainName: name }), /domainName and certificateArn go together/);
    assert.throws(() => settings({ domainName: 'https://api.example.com', certificateArn: CERT('eu-central-1') }), /lowercase host name/);
    assert.throws(() => settings({ domainName: name, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' }), /ACM certificate ARN/);
    assert.equal(settings({}).domain, undefined);
  });
});

/** The front door of a bare HTTP API in a stack of its own: its template and its base address, resolved. */
function front(edge: boolean, domain?: DomainConfig) {
  const stack = new Stack(new App(), 'Front', { env: { region: 'eu-central-1' } });
  const api = new HttpApi(stack, 'Api');
  const door = new FrontDoor(stack, 'Edge', {
    api,
    stage: 'test',
    ...(edge ? { webAclArn: WEB_ACL } : {}),
    ...(domain ? { domain } : {}),
    logs: { retentionDays: 7, removal: 'destroy', level: 'INFO' },
    environment: {},
  });
  const template = Template.fromStack(stack);
  const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, any> }>; Outputs?: Record<string, any> };
  const ofType = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
  const one = (type: string) => {
    const found = ofType(type);
    assert.equal(found.length, 1, type);
    return found[0]!;
  };
  return { baseUrl: stack.resolve(door.baseUrl) as unknown, json, ofType, one, apiId: stack.getLogicalId(api.node.defaultChild as never) };
}

describe('the front door of the API', () => {
  const domain = { name: 'api.example.com', certificateArn: CERT('eu-central-1') };
  const edgeDomain = { name: 'api.example.com', certificateArn: CERT('us-east-1') };

  it("is the API's own address without the edge or a domain", () => {
    const f = front(false);
    assert.deepEqual(
      ['AWS::CloudFront::Distribution', 'AWS::ApiGatewayV2::DomainName', 'AWS::ApiGatewayV2::Authorizer', 'AWS::SecretsManager::Secret'].map(
        (t) => f.ofType(t).length,
      ),
      [0, 0, 0, 0],
    );
    assert.deepEqual(f.baseUrl, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [f.apiId, 'ApiEndpoint'] }, '/v1']] });
  });

  it('puts the custom domain on API Gateway without the edge: regional, TLS 1.2, mapped at the root of the default stage', () => {
    const f = front(false, domain);
    const [domainId, name] = f.one('AWS::ApiGatewayV2::DomainName');
    assert.deepEqual(name.Properties, {
      DomainName: domain.name,
      DomainNameConfigurations: [{ CertificateArn: domain.certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
    });
    const mappings = f.ofType('AWS::ApiGatewayV2::ApiMapping').map(([, m]) => m.Properties);
    assert.equal(mappings.length, 1);
    // No ApiMappingKey: https://api.example.com/v1/... reaches the API's /v1 routes.
    assert.deepEqual(Object.keys(mappings[0]!).sort(), ['ApiId', 'DomainName', 'Stage']);
    assert.deepEqual([mappings[0]!.ApiId, mappings[0]!.DomainName], [{ Ref: f.apiId }, { Ref: domainId }]);
    assert.deepEqual(f.json.Outputs?.DomainTarget?.Value, { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    assert.equal(f.baseUrl, 'https://api.example.com/v1');
    assert.equal(f.ofType('AWS::CloudFront::Distribution').length, 0);
  });

  it('puts the custom domain on CloudFront with the edge, with its us-east-1 certificate and TLS 1.2 at least', () => {
    const f = front(true, edgeDomain);
    const [distId, dist] = f.one('AWS::CloudFront::Distribution');
    const config = dist.Properties.DistributionConfig;
    assert.deepEqual(config.Aliases, [edgeDomain.name]);
    assert.deepEqual(config.ViewerCertificate, {
      AcmCertificateArn: edgeDomain.certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    assert.equal(config.WebACLId, WEB_ACL);
    assert.deepEqual(f.json.Outputs?.DomainTarget?.Value, { 'Fn::GetAtt': [distId, 'DomainName'] });
    assert.equal(f.baseUrl, 'https://api.example.com/v1');
    // The API Gateway domain is not made: the API's own address stays CloudFront's origin.
    assert.equal(f.ofType('AWS::ApiGatewayV2::DomainName').length, 0);
  });

  it("is the distribution's address with the edge and no domain", () => {
    const f = front(true);
    const [distId, dist] = f.one('AWS::CloudFront::Distribution');
    assert.equal(dist.Properties.DistributionConfig.Aliases, undefined);
    assert.deepEqual(f.baseUrl, { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distId, 'DomainName'] }, '/v1']] });
    assert.equal(f.json.Outputs?.DomainTarget, undefined);
  });
});
