/**
 * Upload a firmware package (issue 16 item 1, firmware:package:upload): name, version, device
 * type, models (empty: every model of the type), release notes in Chinese and English, an
 * optional expected SHA-256 (from the vendor; the server refuses with 7033 when the file's
 * differs), and the file (at most 256 MiB, checked before anything is sent). Each field is
 * checked with the contract's rule for it (model.ts `uploadFieldValid`).
 *
 * While the file goes out: a progress bar with bytes sent of the total and an "abort" button
 * (closing the dialog aborts too); the server stores nothing of a body cut short. A refusal
 * (duplicate version 7032, checksum 7033, too large 7031, cut short 7034, a field -100) is
 * shown in the dialog in the UI language, the form kept for a correction.
 * Test hooks: `firmware-upload-dialog`, `firmware-upload-name`, `-version`, `-type`, `-models`,
 * `-note-zh`, `-note-en`, `-sha`, `-file` (the file input), `firmware-upload-submit`,
 * `firmware-upload-abort`, `firmware-upload-progress` (`data-percent`), `firmware-upload-error`.
 */
import { InboxOutlined } from '@ant-design/icons';
import {
  DEVICE_TYPES,
  type DeviceType,
  deviceTypeLabel,
  FIRMWARE_MAX_BYTES,
  FIRMWARE_MAX_MODELS,
  FIRMWARE_NAME_MAX,
  FIRMWARE_RELEASE_NOTE_MAX,
} from '@ess/contract';
import { Alert, Button, Form, Input, Modal, Progress, Select, Upload } from 'antd';
import axios from 'axios';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureText } from '@/shared/api/client';
import { isApiError } from '@/shared/api/errors';
import { DIALOG_WIDTH_PX } from '@/shared/config';
import { showSuccess } from '@/shared/feedback';
import { currentLang } from '@/shared/i18n';
import { uploadPackage } from '../api';
import {
  formatBytes,
  MAX_UPLOAD_MIB,
  SHA256_HEX_CHARS,
  type UploadField,
  type UploadForm,
  uploadFieldValid,
  VERSION_MAX_CHARS,
} from '../model';

interface Props {
  open: boolean;
  onClose: () => void;
  onUploaded: () => void;
}

interface Sending {
  sent: number;
  total: number;
}

export function UploadDialog({ open, onClose, onUploaded }: Props) {
  const { t } = useTranslation();
  const lang = currentLang();
  const [form] = Form.useForm<UploadForm>();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<Sending | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const busy = progress !== null;

  const rule = (field: UploadField, message: string) => ({
    validator: (_: unknown, value: string | string[] | undefined) =>
      uploadFieldValid(field, value) ? Promise.resolve() : Promise.reject(new Error(message)),
  });

  const pickFile = (f: File) => {
    setError(null);
    if (f.size === 0) {
      setFile(null);
      setFileError(t('firmware.uploadForm.fileEmpty'));
    } else if (f.size > FIRMWARE_MAX_BYTES) {
      setFile(null);
      setFileError(t('firmware.uploadForm.fileTooLarge', { max: MAX_UPLOAD_MIB }));
    } else {
      setFile(f);
      setFileError(null);
    }
    return false; // nothing is sent until the form is submitted
  };

  const submit = async () => {
    setError(null);
    let values: UploadForm;
    try {
      values = await form.validateFields();
    } catch {
      if (!file) setFileError(t('firmware.uploadForm.fileRequired'));
      return;
    }
    if (!file) {
      setFileError(t('firmware.uploadForm.fileRequired'));
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setProgress({ sent: 0, total: file.size });
    try {
      const pkg = await uploadPackage(
        {
          name: values.name ?? '',
          version: values.version ?? '',
          deviceType: values.deviceType as DeviceType,
          models: values.models ?? [],
          releaseNoteZh: values.releaseNoteZh,
          releaseNoteEn: values.releaseNoteEn,
          fileName: file.name,
          ...(values.sha256?.trim() ? { sha256: values.sha256.trim().toLowerCase() } : {}),
        },
        file,
        { signal: controller.signal, onProgress: (sent, total) => setProgress({ sent, total }) },
      );
      showSuccess(t('firmware.uploadForm.done', { name: pkg.name, version: pkg.version }));
      onUploaded();
      onClose();
    } catch (err) {
      if (axios.isCancel(err) || controller.signal.aborted) setError(t('firmware.uploadForm.aborted'));
      else if (isApiError(err)) setError(failureText(err.code, err.serverMsg, 'server'));
      else setError(t('firmware.uploadForm.failed', { reason: (err as Error).message }));
    } finally {
      abort.current = null;
      setProgress(null);
    }
  };

  const close = () => {
    abort.current?.abort();
    onClose();
  };

  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;

  return (
    <Modal
      open={open}
      title={t('firmware.uploadForm.title')}
      width={DIALOG_WIDTH_PX}
      onCancel={close}
      maskClosable={!busy}
      destroyOnHidden
      afterClose={() => {
        form.resetFields();
        setFile(null);
        setFileError(null);
        setError(null);
      }}
      footer={[
        busy ? (
          <Button
            key="abort"
            danger
            onClick={() => abort.current?.abort()}
            data-testid="firmware-upload-abort"
          >
            {t('firmware.uploadForm.abort')}
          </Button>
        ) : (
          <Button key="cancel" onClick={close}>
            {t('common.cancel')}
          </Button>
        ),
        <Button
          key="ok"
          type="primary"
          loading={busy}
          onClick={() => void submit()}
          data-testid="firmware-upload-submit"
        >
          {t('firmware.uploadForm.submit')}
        </Button>,
      ]}
    >
      <div data-testid="firmware-upload-dialog">
        <Form<UploadForm> form={form} layout="vertical" disabled={busy} requiredMark>
          <div className="fw-form__row">
            <Form.Item
              name="name"
              label={t('firmware.field.name')}
              required
              rules={[rule('name', t('firmware.uploadForm.nameRule', { max: FIRMWARE_NAME_MAX }))]}
            >
              <Input maxLength={FIRMWARE_NAME_MAX} data-testid="firmware-upload-name" />
            </Form.Item>
            <Form.Item
              name="version"
              label={t('firmware.field.version')}
              required
              tooltip={t('firmware.uploadForm.versionHint')}
              rules={[rule('version', t('firmware.uploadForm.versionRule'))]}
            >
              <Input
                maxLength={VERSION_MAX_CHARS}
                placeholder="2.4.1 / V1.2.3_B05"
                data-testid="firmware-upload-version"
              />
            </Form.Item>
          </div>
          <div className="fw-form__row">
            <Form.Item
              name="deviceType"
              label={t('firmware.field.deviceType')}
              rules={[{ required: true, message: t('firmware.uploadForm.typeRule') }]}
            >
              <Select<DeviceType>
                options={DEVICE_TYPES.map((d) => ({ value: d, label: deviceTypeLabel(d, lang) }))}
                data-testid="firmware-upload-type"
              />
            </Form.Item>
            <Form.Item
              name="models"
              label={t('firmware.field.models')}
              tooltip={t('firmware.uploadForm.modelsHint')}
              rules={[rule('models', t('firmware.uploadForm.modelsRule', { max: FIRMWARE_MAX_MODELS }))]}
            >
              <Select
                mode="tags"
                tokenSeparators={[',', '，']}
                open={false}
                suffixIcon={null}
                placeholder={t('firmware.allModels')}
                data-testid="firmware-upload-models"
              />
            </Form.Item>
          </div>
          <div className="fw-form__row">
            <Form.Item
              name="releaseNoteZh"
              label={t('firmware.field.noteZh')}
              rules={[
                rule('releaseNoteZh', t('firmware.uploadForm.noteRule', { max: FIRMWARE_RELEASE_NOTE_MAX })),
              ]}
            >
              <Input.TextArea
                rows={3}
                maxLength={FIRMWARE_RELEASE_NOTE_MAX}
                showCount
                data-testid="firmware-upload-note-zh"
              />
            </Form.Item>
            <Form.Item
              name="releaseNoteEn"
              label={t('firmware.field.noteEn')}
              rules={[
                rule('releaseNoteEn', t('firmware.uploadForm.noteRule', { max: FIRMWARE_RELEASE_NOTE_MAX })),
              ]}
            >
              <Input.TextArea
                rows={3}
                maxLength={FIRMWARE_RELEASE_NOTE_MAX}
                showCount
                data-testid="firmware-upload-note-en"
              />
            </Form.Item>
          </div>
          <Form.Item
            name="sha256"
            label={t('firmware.uploadForm.expectedSha')}
            tooltip={t('firmware.uploadForm.expectedShaHint')}
            rules={[rule('sha256', t('firmware.uploadForm.shaRule'))]}
          >
            <Input maxLength={SHA256_HEX_CHARS} className="fw-mono" data-testid="firmware-upload-sha" />
          </Form.Item>
          <Form.Item
            label={t('firmware.uploadForm.file')}
            required
            validateStatus={fileError ? 'error' : undefined}
            help={fileError ?? undefined}
          >
            <Upload.Dragger
              multiple={false}
              showUploadList={false}
              beforeUpload={pickFile}
              disabled={busy}
              data-testid="firmware-upload-file"
            >
              <p className="ant-upload-drag-icon">
                <InboxOutlined />
              </p>
              {file ? (
                <p className="fw-file" data-testid="firmware-upload-chosen">
                  <span className="fw-strong">{file.name}</span>
                  <span className="fw-muted">{formatBytes(file.size)}</span>
                </p>
              ) : (
                <p className="ant-upload-text">
                  {t('firmware.uploadForm.fileHint', { max: MAX_UPLOAD_MIB })}
                </p>
              )}
            </Upload.Dragger>
          </Form.Item>
        </Form>
        {progress && (
          <div className="fw-progress" data-testid="firmware-upload-progress" data-percent={percent}>
            <Progress percent={percent} status="active" />
            <span className="fw-muted">
              {progress.sent >= progress.total
                ? t('firmware.uploadForm.checking')
                : t('firmware.uploadForm.sent', {
                    sent: formatBytes(progress.sent),
                    total: formatBytes(progress.total),
                  })}
            </span>
          </div>
        )}
        {error && (
          <Alert
            type="error"
            showIcon
            className="fw-form__alert"
            title={error}
            data-testid="firmware-upload-error"
          />
        )}
      </div>
    </Modal>
  );
}
